-- What each account allowed each client at the authorization endpoint: the scopes (space-separated,
-- in the order first allowed), when first allowed and when last widened. An account's consents go
-- with the account.
create table consents (
  account_id integer not null references users (id) on delete cascade,
  client_id  text not null,
  scopes     text not null,
  granted_at integer not null,
  updated_at integer not null,
  primary key (account_id, client_id)
) without rowid;
