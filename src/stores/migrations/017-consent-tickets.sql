-- Consent tickets already decided with (Allow or Deny), by id, until a while after they expire: a
-- ticket decides once, whichever process it is posted to.
create table consent_tickets (
  ticket_id  text primary key,
  expires_at integer not null -- epoch seconds
) without rowid;
create index consent_tickets_expiry on consent_tickets (expires_at);
