"""Each chapter's plan: the work its gpu profile does, cell by cell, from its configuration.

``tools/t4_estimate.py`` sets a gpu check's counts beside a chapter's plan, ``chNN.py`` here:

- ``steps(cfg) -> {cell id: optimizer steps}``: for every cell that trains with a torch
  optimizer, the steps it takes under ``cfg``, the chapter's ``pick``ed configuration (a gpu
  check calls it with the gpu profile's choice and with the check's, and the check's must give
  the steps the check took, cell by cell); a list instead of a number gives each loop of
  the cell its steps, one for each optimizer in the order they first step, for a cell whose
  loops differ in cost (pretraining, then fine-tuning);
- ``work(cfg) -> {cell id: units}`` (optional): for a cell whose time is the CPU's (a
  from-scratch engine, counting, a tokenizer's merges), a number its time is proportional to;
  the estimate scales the cell's time in the check by the gpu profile's units over the check's.

A plan computes from ``cfg`` and the data's sizes (``sizes.py``), never from a count typed in.
"""
