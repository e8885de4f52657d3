SELECT 1;
-- comment;
SELECT
  2;
SELECT 3
