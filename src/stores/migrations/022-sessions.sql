-- Sign-in sessions of the authorization endpoint, by the hash of their cookie's value (the value
-- itself is never stored). A session is bound to its account's security version: a change that
-- moves the version ends it, in whichever process it is used next.
create table sessions (
  id_hash         text primary key,
  account_id      integer not null,
  account_version integer not null,
  auth_time       integer not null, -- epoch seconds: when the password was checked
  created_at      integer not null,
  expires_at      integer not null,
  ended_at        integer           -- null while the session lasts
) without rowid;
create index sessions_account on sessions (account_id, expires_at);
create index sessions_expiry on sessions (expires_at);
