"""The browser client: HTML page shells, ES modules and CSS, served as they are (no build step)."""
