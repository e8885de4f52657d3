SELECT 1;
/* a /* b */ c */ SELECT 2;
/* open
