-- The latest exp (by the tokens' own claims) of the access tokens issued in a login up to and with
-- this refresh token: a revoked login is refused until then plus the clock skew, whichever
-- process's clock revoked it. Null for tokens stored before it was recorded.
alter table refresh_tokens add column access_expires_at integer;
