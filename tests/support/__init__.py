"""Shared test support: app and Hub servers, fixture factories (imported by tests and perf/)."""
