"""Differential tests: ``trainops validate`` against the real kube-apiserver (issues 14 and 27).

* :mod:`conformance.test_apiserver_verdicts` (in ``make test``): the server's recorded answers,
  ``../shared/ground-truth/apiserver/verdicts.tsv``, for every document of ``../shared/examples`` and
  1,851 mutations, against one ``trainops validate`` run; disagreements are listed with their
  reasons in ``known_disagreements.yaml``;
* :mod:`conformance.adapter`: the one function that asks trainops for its verdicts;
* :mod:`conformance.test_vap_conformance` and :mod:`conformance.oracle` (``make conformance``,
  ``conformance`` marker, deselected by the default run): the exported ValidatingAdmissionPolicies in
  a live server, skipped when ``../shared/oracle`` cannot start one.
"""
