"""Reporters: the only code that formats results for people or machines."""
