"""Adapters that connect sitemapkit to MkDocs, Pelican and Sphinx."""
