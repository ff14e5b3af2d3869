-- Revoked access tokens (kind 'token', by jti) and revoked logins (kind 'login': every access token
-- carrying the login's id in its `sid` claim), each refused until expires_at, after which no token
-- it covers can still be valid. seq orders the entries: every process sharing this file reads the
-- ones added since it last looked (another instance, a worker, the REPL may have added them).
create table revocations (
  seq        integer primary key autoincrement,
  kind       text not null check (kind in ('token', 'login')),
  id         text not null,
  expires_at integer not null, -- epoch seconds
  unique (kind, id)
);

create index revocations_expiry on revocations (expires_at);

insert into revocations (kind, id, expires_at) select 'token', jti, expires_at from revoked_access_tokens;
drop table revoked_access_tokens;
