-- Users and roles of the secured service (many-to-many).
create table roles (
  id          integer primary key,
  role_name   text not null unique,
  description text not null default ''
);

create table users (
  id         integer primary key,
  username   text not null unique,
  password   text not null,
  first_name text not null default '',
  last_name  text not null default ''
);

create table user_roles (
  user_id integer not null references users (id) on delete cascade,
  role_id integer not null references roles (id) on delete cascade,
  primary key (user_id, role_id)
) without rowid;
