-- The signing-key set (src/stores/key-store.ts): each key's private part as a JWK, sealed when
-- security.keys.encryption-secret is set. States are derived from activates_at and removed_at and
-- the clock; every process sharing this file reads the set again when another one changed it.
create table signing_keys (
  kid          text primary key,
  alg          text not null,
  secret       text not null,
  created_at   integer not null, -- epoch seconds
  activates_at integer not null, -- epoch seconds: signs from then until a later key activates
  removed_at   integer,          -- epoch seconds: taken out by `keys retire`
  created_by   text not null,
  removed_by   text
);
