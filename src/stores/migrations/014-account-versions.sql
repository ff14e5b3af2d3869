-- Each account's security version: every change that must cut access (disabled, deleted, a
-- password set, a role change, every login ended) moves it in the same write. Whatever is minted
-- from a read of an account (an access token, a login's refresh tokens, an authorization code)
-- records the account's id and the version read, and is honoured only while they are current.
--
-- Account ids are never reused (AUTOINCREMENT), so a username created again is another account.
-- A column cannot be made AUTOINCREMENT in place: users is copied into a table that is, with
-- user_roles, whose rows would otherwise go with the old table (foreign keys cascade on drop).

create table users_next (
  id               integer primary key autoincrement,
  username         text not null unique,
  password         text not null,
  first_name       text not null default '',
  last_name        text not null default '',
  enabled          integer not null default 1 check (enabled in (0, 1)),
  security_version integer not null default 0
);
insert into users_next (id, username, password, first_name, last_name, enabled)
  select id, username, password, first_name, last_name, enabled from users;

create table user_roles_next (
  user_id integer not null references users_next (id) on delete cascade,
  role_id integer not null references roles (id) on delete cascade,
  primary key (user_id, role_id)
) without rowid;
insert into user_roles_next (user_id, role_id) select user_id, role_id from user_roles;

drop table user_roles;
drop table users;
alter table users_next rename to users;
alter table user_roles_next rename to user_roles;

create trigger users_changed_insert after insert on users begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger users_changed_update after update on users begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger users_changed_delete after delete on users begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger user_roles_changed_insert after insert on user_roles begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger user_roles_changed_update after update on user_roles begin update change_counters set n = n + 1 where name = 'credentials'; end;
create trigger user_roles_changed_delete after delete on user_roles begin update change_counters set n = n + 1 where name = 'credentials'; end;

-- A revocation of kind 'account' now names the account by its id and refuses every access token
-- minted from a read of it at a version below `below_version`; the old ones (by username and issue
-- time) are dropped with the tokens they covered, which carry no account id and are refused anyway.
delete from revocations where kind = 'account';
alter table revocations rename column issued_before to below_version;

-- Written by the same transaction that moves the version, whichever process or path moves it: an
-- account's entry is kept while the account exists (one row, replaced: a new seq, so every reader's
-- cursor reaches it). A deleted account's entry refuses every version, for longer than any access
-- token can live (the longest validity configurable is a year).
create trigger users_version_moved after update of security_version on users
begin
  delete from revocations where kind = 'account' and id = cast(new.id as text);
  insert into revocations (kind, id, expires_at, below_version)
    values ('account', cast(new.id as text), 9007199254740991, new.security_version);
end;
create trigger users_deleted_version after delete on users
begin
  delete from revocations where kind = 'account' and id = cast(old.id as text);
  insert into revocations (kind, id, expires_at, below_version)
    values ('account', cast(old.id as text), unixepoch() + 31622400 + 86400, 9007199254740991);
end;

-- The account (by id) and version each login and each code was minted from. Those stored before
-- belong to the account of their username now, at its first version.
alter table refresh_tokens add column account_id integer;
alter table refresh_tokens add column account_version integer;
update refresh_tokens set account_id = (select id from users where users.username = refresh_tokens.username),
  account_version = 0;
create index refresh_tokens_account on refresh_tokens (account_id);

alter table authorization_codes add column account_id integer;
alter table authorization_codes add column account_version integer;
update authorization_codes set account_id = (select id from users where users.username = authorization_codes.username),
  account_version = 0;
