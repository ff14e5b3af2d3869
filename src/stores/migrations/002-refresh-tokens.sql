-- Refresh tokens, stored only as SHA-256 hashes. A family is every token of one login; a token
-- presented twice revokes its whole family.
create table refresh_tokens (
  token_hash text primary key,
  family_id  text not null,
  client_id  text not null,
  username   text not null,
  scope      text not null,
  issued_at  integer not null, -- epoch seconds
  expires_at integer not null, -- epoch seconds
  used_at    integer,          -- set when rotated
  revoked_at integer
) without rowid;

create index refresh_tokens_family on refresh_tokens (family_id);
create index refresh_tokens_expiry on refresh_tokens (expires_at);
