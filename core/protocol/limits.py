"""The protocol's limits, each quoting the sentence of sitemaps.org/protocol.html it implements.

They are the defaults and ceilings of :class:`~sitemapkit.Options` fields, which
tests set to tiny values; nothing else hard-codes them.
"""

# sitemaps.org/protocol.html, "Sitemap file location" and "Using Sitemap index files":
# "Each Sitemap file that you provide must have no more than 50,000 URLs".
MAX_URLS_PER_SITEMAP = 50_000

# sitemaps.org/protocol.html, as the project was specified from it: "and must be no
# larger than 10MB (10,485,760 bytes)". Every crawler accepts this figure.
DEFAULT_MAX_BYTES = 10_485_760

# sitemaps.org/protocol.html since November 2016: "must be no larger than 50MB
# (52,428,800 bytes)". Nothing above this is accepted.
MAX_BYTES_CEILING = 52_428_800

# sitemaps.org/protocol.html, "Using Sitemap index files": "Sitemap index files may
# not list more than 50,000 Sitemaps and must be no larger than 50MB".
MAX_SITEMAPS_PER_INDEX = 50_000

# sitemaps.org/protocol.html, <loc>: "This value must be less than 2,048 characters."
MAX_LOC_LENGTH = 2_047

# Google's image sitemap documentation (developers.google.com/search/docs/crawling-
# indexing/sitemaps/image-sitemaps): "You can include up to 1,000 <image:image> tags
# for each <url> tag." The first ones, in the page's order, are listed.
MAX_IMAGES_PER_URL = 1_000

# RFC 9309 (the Robots Exclusion Protocol), section 2.5: "Crawlers SHOULD impose a
# parsing limit to protect their systems ... The parsing limit MUST be at least
# 500 kibibytes (KiB)." Google reads that much: "Content which is after the maximum
# file size is ignored." A robots.txt is read this far, its Sitemap: lines with it.
ROBOTS_TXT_PARSING_LIMIT = 500 * 1024
