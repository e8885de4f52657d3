INSERT INTO t VALUES ('it\'s; here', "double \" quoted; string", 'doubled '' quote;');
SELECT '\\'; SELECT "\\";
SELECT 'a\\\'b;', _utf8mb4'x;', N'n;', X'ff';
SELECT "it's", 'say "hi";';
