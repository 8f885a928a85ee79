"""Isolation between traders in the database: row-level security, its scope, and elevations."""
