"""What the process as a whole is set to: the one owner of each process-wide setting."""
