"""Infrastructure the compile level uses: the one cache, the one atomic write, the one parallel
map, packaged resources, and pickling of frozen dataclasses. Nothing here knows about
signatures; the stages of the pipeline never import the cache, the writer or the parallel
map themselves (the import contracts in pyproject.toml say so)."""
