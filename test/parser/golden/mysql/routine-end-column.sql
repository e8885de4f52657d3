-- `end` is a valid column name in MySQL: inside a routine body without DELIMITER only an END that
-- starts a statement closes a block, and a CASE closes at its own END.
CREATE TABLE periods (id int, `end` int);
CREATE PROCEDURE last_end(OUT o int)
BEGIN
  SELECT end INTO o FROM periods;
  IF o > 0 THEN SELECT p.end FROM periods p; END IF;
  SET o = CASE WHEN o > 1 THEN o ELSE 0 END;
END;
CREATE PROCEDURE nothing() BEGIN END;
SELECT end FROM periods;
