"""The elections (``actors/algorithms``): the notes' counts and walk-throughs, in the simulator."""
