CREATE TABLE t (a INT, `end` INT, `case` INT, `if` INT, `loop` INT, `while` INT, `repeat` INT, `begin` INT);
-- t.end, t.if, t.loop ... are columns, and end.x a column of a table aliased `end`: none of them
-- opens or closes a compound statement.
CREATE PROCEDURE p() BEGIN SELECT t.end FROM t; SELECT 2; END;
CREATE PROCEDURE q()
BEGIN
  SELECT t.case, t.if, t.loop, t.while, t.repeat, `t`.begin, t . end, t./* c; */end FROM t;
  UPDATE t SET t.end = 1 WHERE t.begin = 2;
  SELECT end.if, begin . a, end/* c; */.a FROM t AS `end`, t AS `begin`;
  IF (SELECT MAX(t.end) FROM t) > 0 THEN SELECT 1.; END IF;
  SELECT CASE WHEN 1 THEN 1. END;
END;
CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.end = NEW.begin;
CREATE TRIGGER tr2 BEFORE UPDATE ON t FOR EACH ROW
BEGIN
  SET NEW.end = OLD.end;
  SET NEW.if = OLD.case;
END;
SELECT 3;
