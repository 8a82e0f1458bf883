"""The machine, below everything else: files read as hostile input, git run as a process, the cache kept between runs."""
