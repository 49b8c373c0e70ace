"""A spec from a chat template: the template rendered (`rendering`) on probe turns
(`probes`), a format's read-back of those renders checked (`roundtrip`), and a spec
inferred from their differences (`infer`) where no built-in family reads them."""
