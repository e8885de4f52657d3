CREATE TABLE `db;x`.`t\`1` ("a\"b;" String, c Int8) ENGINE = MergeTree ORDER BY c;
INSERT INTO t VALUES ('it\'s; here', 'doubled '' quote;', '\\');
SELECT 'x' AS `semi;colon`, "quoted;id" FROM t FORMAT JSON;
