-- User data and user activity of the user-data service. Email is unique compared case-insensitively
-- (the service accepts ASCII addresses only, so lower() folds every case). A user's activity is
-- append-only, ordered by seq, and goes with the user (on delete cascade).
create table user_data (
  id         text primary key check (length(id) = 24),
  name       text not null,
  email      text not null,
  created_at text not null, -- ISO-8601
  updated_at text not null, -- ISO-8601
  version    integer not null default 1 check (version >= 1)
) without rowid;

create unique index user_data_email on user_data (lower(email));

create table user_activity (
  seq     integer primary key autoincrement, -- monotonic: the order of activities
  id      text not null unique check (length(id) = 24),
  user_id text not null references user_data (id) on delete cascade,
  type    text not null,
  detail  text not null check (json_valid(detail)),
  at      text not null -- ISO-8601
);

create index user_activity_user on user_activity (user_id, seq);
