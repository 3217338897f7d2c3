"""Capture: agent hook -> spool -> detached worker -> session memory."""
