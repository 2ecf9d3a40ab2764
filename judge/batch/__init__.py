"""``judge batch``: grade a class.  ``command.run`` is the job; the modules it uses are
listed in its docstring.  ``schedule.open_grader`` is the part other front ends reuse
(grade one submission on local threads or a Dask cluster, get its record back).

Imported only by the ``batch`` command (and whatever grades on demand), so that
`judge run` never pays for it."""
