"""Benchmarks (see README.md). A package so gunicorn and the Celery worker can import bench._floor_settings."""
