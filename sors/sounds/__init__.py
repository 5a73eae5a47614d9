"""Sounds: the audio posts use, their usage over time and lifecycle stage, trends by niche."""
