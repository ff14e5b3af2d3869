-- The signing-key set holds two lineages: the keys of access tokens (every key stored before) and
-- those of id_tokens (OpenID Connect). Each lineage rotates and retires its keys on its own; a
-- process reads and changes the rows of one lineage at a time (src/stores/key-store.sqlite.ts).
alter table signing_keys add column use text not null default 'access' check (use in ('access', 'id_token'));
