-- Authorization codes by their SHA-256; used_at is set once, by the redemption that spends it.
create table authorization_codes (
  code_hash text primary key,
  client_id text not null,
  redirect_uri text not null,
  code_challenge text not null,
  scope text not null,
  username text not null,
  login_id text not null,
  expires_at integer not null,
  used_at integer
);
create index authorization_codes_expiry on authorization_codes (expires_at);
