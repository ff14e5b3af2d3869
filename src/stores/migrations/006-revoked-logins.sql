-- Logins revoked as a whole (refresh-token reuse, a refresh token revoked at /oauth/revoke): every
-- access token carrying the login's id (its `sid` claim, the refresh-token family id) is refused
-- until expires_at, after which no access token of that login can still be valid.
create table revoked_logins (
  login_id   text primary key,
  expires_at integer not null -- epoch seconds
) without rowid;

create index revoked_logins_expiry on revoked_logins (expires_at);
