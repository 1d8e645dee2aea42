"""The probe: render variants, send them to a provider (or the local KV backend), measure
cached tokens, report."""
