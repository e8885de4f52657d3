CREATE FUNCTION f(a int) RETURNS int AS $$
BEGIN
  RETURN a + 1; -- not the end; 'quote
END;
$$ LANGUAGE plpgsql;
CREATE FUNCTION g() RETURNS text AS $body$
  SELECT $$inner; text$$ || $x$;$x$;
$body$ LANGUAGE sql;
PREPARE q(int) AS SELECT $1 + $2;
SELECT a$b, $_tag1$ ; $_tag1$, $é$;$é$;
DO $do$ BEGIN RAISE NOTICE 'done;'; END $do$;
