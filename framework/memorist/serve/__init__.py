"""The served process: ``memorist serve`` under gunicorn, its thread worker, malloc arena capping."""
