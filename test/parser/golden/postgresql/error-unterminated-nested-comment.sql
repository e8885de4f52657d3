SELECT 1;
  /* outer /* inner */ still open;
SELECT 2;
