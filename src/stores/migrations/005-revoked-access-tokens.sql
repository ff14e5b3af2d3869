-- Access tokens revoked before their expiry (RFC 7009), refused until they expire.
create table revoked_access_tokens (
  jti        text primary key,
  expires_at integer not null -- epoch seconds: the token's exp
) without rowid;

create index revoked_access_tokens_expiry on revoked_access_tokens (expires_at);
