import { describe, expect, it } from 'vitest';
import { statementPreview } from '../../src/main/engine/migration-error.js';
import { scrubLogText } from '../../src/main/log.js';
import { maskSqlSecrets } from '../../src/net/sql-secrets.js';

describe('maskSqlSecrets', () => {
  it.each([
    ["CREATE ROLE app LOGIN PASSWORD 's3cret'", "CREATE ROLE app LOGIN PASSWORD '***'"],
    ["CREATE ROLE app WITH ENCRYPTED PASSWORD 'it''s' VALID UNTIL '2030-01-01'", "CREATE ROLE app WITH ENCRYPTED PASSWORD '***' VALID UNTIL '2030-01-01'"],
    ['ALTER ROLE app PASSWORD $q$s3cret$q$ VALID UNTIL $$x$$', 'ALTER ROLE app PASSWORD *** VALID UNTIL $$x$$'],
    ["CREATE USER 'app'@'%' IDENTIFIED BY 's3cret'", "CREATE USER 'app'@'%' IDENTIFIED BY '***'"],
    ['CREATE USER app IDENTIFIED WITH mysql_native_password BY "s3\\"cret"', 'CREATE USER app IDENTIFIED WITH mysql_native_password BY "***"'],
    ["CREATE USER app IDENTIFIED VIA ed25519 USING PASSWORD('s3cret')", "CREATE USER app IDENTIFIED VIA ed25519 USING PASSWORD('***')"],
    ["CREATE USER app IDENTIFIED WITH sha256_password BY 's3cret'", "CREATE USER app IDENTIFIED WITH sha256_password BY '***'"],
    ["SET PASSWORD FOR 'app'@'%' = 's3cret'", "SET PASSWORD FOR 'app'@'%' = '***'"],
    ["SET PASSWORD = PASSWORD('s3cret')", "SET PASSWORD = PASSWORD('***')"],
    ["CHANGE MASTER TO MASTER_HOST='db', MASTER_PASSWORD='s3cret'", "CHANGE MASTER TO MASTER_HOST='db', MASTER_PASSWORD='***'"],
    ["CREATE SUBSCRIPTION s CONNECTION 'host=db password=s3cret dbname=app' PUBLICATION p", "CREATE SUBSCRIPTION s CONNECTION 'host=db password=*** dbname=app' PUBLICATION p"],
    ["CREATE USER MAPPING FOR app SERVER s OPTIONS (user 'app', password 's3cret')", "CREATE USER MAPPING FOR app SERVER s OPTIONS (user 'app', password '***')"],
    ["SOURCE(CLICKHOUSE(host 'localhost' user 'default' password 's3cret' table 'src'))", "SOURCE(CLICKHOUSE(host 'localhost' user 'default' password '***' table 'src'))"],
    // A preview cut in the middle of the literal.
    ["CREATE ROLE app PASSWORD 's3cr...", "CREATE ROLE app PASSWORD '***"],
  ])('masks %s', (sql, expected) => {
    expect(maskSqlSecrets(sql)).toBe(expected);
  });

  it.each([
    "INSERT INTO users (name, password) VALUES ('a', 'b')",
    "CREATE TABLE users (password varchar(255) NOT NULL DEFAULT '')",
    "UPDATE t SET a = 'x' WHERE name = 'y'",
    'ALTER ROLE app PASSWORD NULL',
    'password authentication failed for user "app"',
    '{"password":"x"} is JSON, not SQL',
  ])('leaves %s alone', (sql) => {
    expect(maskSqlSecrets(sql)).toBe(sql);
  });

  it('masks before a statement preview cuts the literal', () => {
    const preview = statementPreview(`CREATE ROLE a_long_role_name WITH LOGIN PASSWORD 'abcdefghijklmnopqrstuvwxyz0123456789'`);
    expect(preview).not.toMatch(/abc/);
    expect(preview).toContain("PASSWORD '***'");
  });

  it('applies to every log line', () => {
    expect(scrubLogText("SQL (1.0 ms): CREATE USER 'app'@'%' IDENTIFIED BY 's3cret'")).toBe("SQL (1.0 ms): CREATE USER 'app'@'%' IDENTIFIED BY '***'");
  });
});
