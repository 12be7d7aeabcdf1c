"""Control planes written by strangers from the contract alone (see README.md): the harness must pass
every correct one and catch every one-bug variant."""
