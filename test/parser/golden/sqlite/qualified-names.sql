CREATE TABLE x (a, "end", "begin");
CREATE TABLE y (id);
-- NEW.end, x.begin and `end.a` (a table aliased "end") are names, not the BEGIN or END of a trigger body.
CREATE TRIGGER tr AFTER INSERT ON x
BEGIN
  UPDATE x SET a = new.end WHERE "begin" = NEW . begin;
  DELETE FROM y WHERE id = NEW./* c; */begin;
  SELECT [x].end, `x`.begin, "x".end FROM x;
  SELECT end.a, begin . a, end/* c; */.a FROM x AS "end", x AS "begin";
END;
CREATE TRIGGER tr2 AFTER UPDATE ON x
BEGIN
  SELECT CASE WHEN old.end THEN 1. END FROM x;
  SELECT 2;
END;
SELECT 1;
