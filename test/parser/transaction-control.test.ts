import { describe, expect, it } from 'vitest';
import { firstTransactionControl, transactionControl, unendedTransaction } from '../../src/parser/transaction-control.js';
import { splitStatements } from '../../src/parser/split-statements.js';

describe('transactionControl', () => {
  it('knows the statements that begin a transaction, in every dialect spelling', () => {
    for (const text of ['BEGIN', 'begin', 'BEGIN TRANSACTION', 'BEGIN WORK', 'BEGIN IMMEDIATE', 'BEGIN EXCLUSIVE TRANSACTION', 'BEGIN DEFERRED', 'BEGIN ISOLATION LEVEL SERIALIZABLE', 'BEGIN READ ONLY', 'START TRANSACTION', 'start transaction read write', 'START TRANSACTION WITH CONSISTENT SNAPSHOT', 'COMMIT AND CHAIN', 'ROLLBACK WORK AND CHAIN']) {
      expect(transactionControl(text), text).toBe('begin');
    }
  });

  it('knows the statements that end one', () => {
    for (const text of ['COMMIT', 'commit', 'COMMIT WORK', 'COMMIT TRANSACTION', 'END', 'END TRANSACTION', 'ROLLBACK', 'ROLLBACK WORK', 'ABORT', 'COMMIT AND NO CHAIN']) {
      expect(transactionControl(text), text).toBe('end');
    }
  });

  it('leaves everything else alone: compound statements, savepoints, two-phase commits, look-alike words', () => {
    for (const text of ['BEGIN NOT ATOMIC SELECT 1; END', 'ROLLBACK TO SAVEPOINT s', 'ROLLBACK TO s', 'ROLLBACK WORK TO SAVEPOINT s', "COMMIT PREPARED 'x'", 'SAVEPOINT s', 'RELEASE SAVEPOINT s', 'ENDPOINT', 'BEGINNING', 'COMMITTED', 'CREATE TABLE begin_log (id int)', 'SELECT 1', 'END IF', '']) {
      expect(transactionControl(text), text).toBeUndefined();
    }
  });
});

describe('a section with transactions of its own', () => {
  const statements = (sql: string, dialect: 'postgresql' | 'mysql' | 'sqlite' = 'sqlite') => splitStatements(sql, { dialect });

  it('firstTransactionControl finds the first BEGIN or COMMIT at the top level only', () => {
    expect(firstTransactionControl(statements('CREATE TABLE a (id int);\nBEGIN;\nINSERT INTO a VALUES (1);\nCOMMIT;'))).toMatchObject({ text: 'BEGIN', line: 2 });
    expect(firstTransactionControl(statements('CREATE TRIGGER t AFTER INSERT ON a BEGIN UPDATE a SET id = 1; END;'))).toBeUndefined();
    expect(firstTransactionControl(statements('CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END $$ LANGUAGE plpgsql;', 'postgresql'))).toBeUndefined();
    expect(firstTransactionControl(statements('CREATE PROCEDURE p() BEGIN SELECT 1; END;', 'mysql'))).toBeUndefined();
  });

  it('unendedTransaction finds a BEGIN no later statement ends', () => {
    expect(unendedTransaction(statements('BEGIN;\nSELECT 1;\nCOMMIT;'))).toBeUndefined();
    expect(unendedTransaction(statements('BEGIN;\nSELECT 1;\nCOMMIT;\nBEGIN;\nSELECT 2;'))).toMatchObject({ text: 'BEGIN', line: 4 });
    expect(unendedTransaction(statements('BEGIN;\nSELECT 1;\nCOMMIT AND CHAIN;\nSELECT 2;', 'postgresql'))).toMatchObject({ text: 'COMMIT AND CHAIN', line: 3 });
    expect(unendedTransaction(statements('COMMIT;'))).toBeUndefined();
  });
});
