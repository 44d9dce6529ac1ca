-- The part of a turn's output tokens the model spent reasoning (OpenAI's
-- completion_tokens_details.reasoning_tokens, the Responses API's
-- output_tokens_details.reasoning_tokens); 0 where the upstream says nothing
-- of it (Anthropic) and for turns recorded before.
ALTER TABLE turns ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
