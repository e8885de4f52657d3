CREATE TABLE t ("end" int, "case" int, "begin" int, "atomic" int, a bool);
-- A keyword-like word after a `.` is a column name, never END, CASE, BEGIN or ATOMIC.
CREATE FUNCTION f() RETURNS int LANGUAGE sql
BEGIN ATOMIC
  SELECT t.end FROM t;
  SELECT 2;
END;
CREATE FUNCTION g() RETURNS int LANGUAGE sql
BEGIN ATOMIC
  SELECT t.case + t . end + "t".end + t./* dot; */end + t.
    END FROM t;
  SELECT CASE WHEN a THEN 1. END FROM t;
  SELECT t.begin FROM t;
  SELECT 3;
END;
SELECT t.begin atomic FROM t;
SELECT t.begin, t . atomic, t.BEGIN AS x FROM t;
SELECT 4;
