"""`zepkit ui`: a local web page to look into a memory database, served by the standard library.

One HTML page (`page.html`, plain JavaScript and CSS, no build step) reads JSON from the server;
the backend's read-only views are handed in by the `zepkit` command.
"""
