-- leading comment; with a semicolon
CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL);

  INSERT INTO users VALUES (1, 'a@example.com');;;
;
/* a comment before */ SELECT count(*) FROM users   ;
UPDATE users
   SET email = lower(email) -- trailing comment on a line inside
 WHERE id = 1 -- last comment before the terminator
;
SELECT 1 AS last_without_terminator
-- comment-only tail; not a statement
/* neither is this; */
