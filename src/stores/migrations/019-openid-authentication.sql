-- OpenID Connect: the nonce an authorization request sent (echoed in the id_token), and when the
-- account's password was checked at the sign-in (auth_time, epoch seconds), kept with the code. A
-- login begun with a code keeps that auth_time on each of its refresh tokens, so that an id_token
-- issued by a refresh names the original authentication. Null in what was stored before, and in
-- the logins of the password grant.
alter table authorization_codes add column nonce text;
alter table authorization_codes add column auth_time integer;
alter table refresh_tokens add column auth_time integer;
