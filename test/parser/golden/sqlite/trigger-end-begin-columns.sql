-- `begin` and `end` are valid column names in SQLite: inside a trigger body only the END that
-- starts a statement closes it, and a CASE closes at its own END.
CREATE TABLE periods (id int, begin int, end int);
CREATE TRIGGER tr AFTER INSERT ON periods WHEN NEW.begin > 0 AND NEW.end > 0
BEGIN
  INSERT INTO log SELECT begin, end FROM periods WHERE id = NEW.id;
  UPDATE periods SET end = NEW.end + 1 WHERE id = NEW.id;
  SELECT CASE WHEN NEW.end > 1 THEN 1 ELSE 0 END;
END;
SELECT end FROM periods;
