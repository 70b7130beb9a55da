"""syncopate.lowering"""
