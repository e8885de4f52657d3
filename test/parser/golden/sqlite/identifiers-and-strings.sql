CREATE TABLE [semi;colon] ([a;b] int, `c;d` int, "e""f;" int);
SELECT [a;b], `c;d`, "e""f;" FROM [semi;colon];
SELECT 'it''s; ok', 'back\'; SELECT 2;
SELECT X'00ff', $param, :name, @at, ?1;
/* comment; */ SELECT 3; -- tail;
