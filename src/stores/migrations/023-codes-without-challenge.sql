-- A code may be issued without a PKCE challenge: to a confidential client registered with
-- `pkce_required: false`, in an OpenID request that sent a nonce (RFC 9700 §2.1.1). Its
-- code_challenge is null, and its redemption refuses a code_verifier (RFC 9700 §4.8.2).
--
-- SQLite cannot drop a column's NOT NULL in place: the table is copied into one without it (no
-- table refers to authorization_codes, so nothing goes with the old one).
create table authorization_codes_next (
  code_hash       text primary key,
  client_id       text not null,
  redirect_uri    text not null,
  code_challenge  text,
  scope           text not null,
  username        text not null,
  login_id        text not null,
  expires_at      integer not null,
  used_at         integer,
  account_id      integer,
  account_version integer,
  nonce           text,
  auth_time       integer
);
insert into authorization_codes_next (code_hash, client_id, redirect_uri, code_challenge, scope, username,
    login_id, expires_at, used_at, account_id, account_version, nonce, auth_time)
  select code_hash, client_id, redirect_uri, code_challenge, scope, username,
    login_id, expires_at, used_at, account_id, account_version, nonce, auth_time
  from authorization_codes;
drop table authorization_codes;
alter table authorization_codes_next rename to authorization_codes;
create index authorization_codes_expiry on authorization_codes (expires_at);
