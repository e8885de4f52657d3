SELECT 1;
SELECT /* a /* b */ 2;
/* open;
