// Spec 5 "Idempotency": the answers to a reused Idempotency-Key, the same whether the Redis cache or the
// database row caught it.

/** 409: the first request with this key has not finished. */
export const MSG_IN_FLIGHT = "A request with this Idempotency-Key is still being processed";
/** 422: the key was used with another request body. */
export const MSG_KEY_REUSED = "This Idempotency-Key was already used with a different request";
