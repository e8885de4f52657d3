INSERT INTO t VALUES ('it''s; fine', 'two
lines; here', '');
SELECT 'C:\path\'; SELECT 'no escape\\';
SELECT B'1010', X'ff', N'national;', U&'d\0061t\+000061;';
SELECT 'a' 'continued;' AS c;
