"""Differential tests: ``trainops validate`` against a real kube-apiserver (issue 14, ``make conformance``).

The oracle is ``../shared/oracle`` (kube-apiserver v1.36.2 on etcd, 127.0.0.1). Every document of
``../shared/examples`` and every mutation of the mutation matrix goes to the server with
server-side dry run and strict field validation, and to ``trainops validate``; the verdicts are
compared document by document. Modules:

* :mod:`conformance.oracle`: start/stop the oracle, and a small httpx client (discovery, CRDs,
  namespaces, dry-run create);
* :mod:`conformance.documents`: the documents (upstream examples split per YAML document, and the
  mutations: ``tests/test_mutations.py``, ``bench/mutate.py`` and the issue's extra cases);
* :mod:`conformance.adapter`: the one function that asks trainops for its verdicts;
* :mod:`conformance.compare`: verdict pairs, the agreement table and the known-disagreement list.

The suite carries the ``conformance`` marker, deselected by the default pytest run.
"""
