CREATE DEFINER=`root`@`localhost` PROCEDURE fill(IN n INT)
BEGIN
  DECLARE i INT DEFAULT 0;
  DECLARE done INT DEFAULT 0;
  DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1;
  DROP TABLE IF EXISTS tmp;
  outer_loop: LOOP
    SET i = i + 1;
    IF i > n THEN
      LEAVE outer_loop;
    ELSEIF i = 2 THEN
      SELECT IF(i > 1, 'big', 'small'), REPEAT('x;', 2);
    ELSE
      BEGIN
        SELECT CASE WHEN i = 3 THEN 'three' ELSE 'other' END;
      END;
    END IF;
  END LOOP outer_loop;
  WHILE i > 0 DO
    SET i = i - 1;
  END WHILE;
  REPEAT
    SET i = i + 1;
  UNTIL i >= 3 END REPEAT;
  CASE i
    WHEN 3 THEN SELECT 'three';
    ELSE SELECT 'not three';
  END CASE;
END;
CALL fill(5);
