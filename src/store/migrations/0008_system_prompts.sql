-- The gateway stores a client's system prompt as a message of role 'system'
-- only when it differs from the one stored last (docs/gateway.md, "What the
-- archive keeps"): every turn looks that one up, through this index of the
-- few system messages instead of a scan of the conversation.
CREATE INDEX messages_system ON messages(conversation_id, seq) WHERE role = 'system';
