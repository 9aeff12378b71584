"""nimmt's schema revisions, oldest first (each names its ``down_revision``)."""
