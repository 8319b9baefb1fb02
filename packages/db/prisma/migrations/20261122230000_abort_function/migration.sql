-- svc_abort(reason): raises SQLSTATE 'P0001' with `reason` as the message. Single-statement writes (data-modifying
-- CTEs) call it from their final SELECT when a gate fails (idempotency key taken, monthly quota reached), which
-- rolls back every sub-statement at once: the atomicity of a transaction in one round trip.
CREATE OR REPLACE FUNCTION svc_abort(reason TEXT) RETURNS BOOLEAN
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'P0001', MESSAGE = reason;
END
$$;
